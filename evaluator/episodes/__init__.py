"""Episodes one at a time: the flat row of a scored episode, the table of rows, and the
view of one episode (its conversation with every verdict next to its evidence)."""
