"""cortes_rules: the wargame Cortés (1993) as a formal, executable rulebook."""
