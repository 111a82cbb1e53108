"""AgentRank: the command line, the configuration and the pipeline that chains the parts."""

__version__ = "0.1.0"
