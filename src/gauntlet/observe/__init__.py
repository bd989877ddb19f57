"""Observation: typed facts from the event payload, the input files and GitHub, before the pipeline runs.

``observe.observation.observe`` is the one way in, for the command line and the Action alike, and
``observe.routing`` the one routing table both use.
"""
