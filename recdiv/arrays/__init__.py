"""Functions of plain arrays that several layers share (no recdiv data types): `concentration` (Gini, entropy),
used by the dataset statistics (`recdiv.data.stats`) and by the exposure and category measures."""
