"""The rules-language front end: parse -> IR -> lower -> check.

Each stage is one module with one job:

- :mod:`.parse`: text to IR nodes (lark, positions kept).
- :mod:`.ir`: the frozen attrs classes of the IR.
- :mod:`.lower`: many files' IR into one :class:`~.ir.Program`, with
  symbol tables and optional rules switched on or off.
- :mod:`.check`: names, types, duplicates and dead rules, all diagnostics
  at once.
- :mod:`.diagnostics`: how a problem is reported (file:line:column, caret).
"""
