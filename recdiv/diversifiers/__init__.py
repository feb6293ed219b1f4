"""recdiv.diversifiers."""
