"""Privacy mechanisms and accounting: safe noise, histograms, CatHist, DP binning, the accountant."""
