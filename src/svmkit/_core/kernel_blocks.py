"""Element-wise steps of kernel blocks fused into one pass over the block.

NumPy would pass over a large block once per operation; here the block is
read and written once. Functions work in place on C-contiguous 2-D blocks.
"""

from ._jit import jit


@jit
def rbf_exponent(products, row_norms, col_norms, gamma):
    """In place: ``products[i, j] <- -gamma * max(row_norms[i] + col_norms[j] - 2 products[i, j], 0)``.

    The squared distance is formed in LIBSVM's order, ``|a|^2 + |b|^2 - 2 a'b``;
    it is clipped at 0 because rounding may leave it slightly negative.
    """
    for i in range(products.shape[0]):
        row_norm = row_norms[i]
        row = products[i]
        for j in range(row.shape[0]):
            distance = row_norm + col_norms[j] - 2.0 * row[j]
            row[j] = -gamma * (distance if distance > 0.0 else 0.0)
