"""The rules-language front end: parse -> IR -> lower -> check.

Each stage is one module with one job:

- ``.parse``: text to IR nodes (lark, positions kept).
- ``.ir``: the frozen attrs classes of the IR.
- ``.lower``: many files' IR into one ``Program``, with
  symbol tables and optional rules switched on or off.
- ``.check``: names, types, duplicates and dead rules, all diagnostics
  at once.
- ``.diagnostics``: how a problem is reported (file:line:column, caret).
"""
