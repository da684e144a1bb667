"""What every layer shares and none owns: the error base and the binomial tail (numpy only)."""
