"""What touches the operating system: files written safely, child processes, signals."""
