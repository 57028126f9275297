"""Pure plotting functions ``plot_xxx(ax, result, ...) -> ax``, one module per unit."""
