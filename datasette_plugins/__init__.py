"""The Datasette plugin that publishes AgentRank (registered through the ``datasette`` entry point).

Datasette finds ``templates/`` and ``static/`` next to this package, which is why the entry point
names the package and not a submodule.
"""
