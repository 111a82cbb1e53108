"""The weekly schedule that runs ``agentrank refresh`` (apscheduler 3.x)."""
