"""cosched from Python. For now: progress periods for real programs (`cosched.pp`)."""
