"""The bench's subcommands, one module each, as tools/bench.py's table names them. Each
module has arguments(parser), which adds the subcommand's own arguments, and run(link, args)
-> the exit status (0 passed, 1 failed, 2 the device refused); one may have refusal(args),
a one-line reason to refuse its arguments (or None) before any board or simulator is asked."""
