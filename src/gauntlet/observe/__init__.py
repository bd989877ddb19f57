"""Observation: typed facts from the event payload, the input files and GitHub, before the pipeline runs."""
