"""CLI subcommands: one module each, exposing ``register(subparsers)``.

``tooleval.cli`` lists them in one tuple; nothing registers itself.
"""
