"""The flagcheck command: the one place that reads argv; each subcommand's
own parser and printing under it (cli/main.py dispatches)."""
