"""The reference interpreter: executes a checked ``Program``.

It favours clarity over speed: it is the executable specification that the
compiled core must agree with, move for move. Nothing in it knows Cortés;
it knows hex grids, units with steps, movement points, odds combat and turn
sequences, and asks the rulebook for every number and condition.
"""
