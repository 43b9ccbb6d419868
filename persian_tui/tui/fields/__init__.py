"""Persian text as it is read: the single-line and multi-line fields (typed right to left, caret mapped
between logical and visual positions), a right-to-left text view and the bidi line they share."""
