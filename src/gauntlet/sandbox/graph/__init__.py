"""The sandbox's GraphQL API: a subset of GitHub's schema (``schema.graphql``) served at ``POST /graphql``."""
