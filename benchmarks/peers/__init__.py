"""The default method against the peers: mbi 2.0's reference AIM and MST, and the AIM and MST of SmartNoise
and OpenDP, each in its own environment (``requirements-bench*.txt``) through a worker process."""
