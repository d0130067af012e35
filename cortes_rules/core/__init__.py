"""The core: the general layer every rulebook is stated on (its static world)."""
