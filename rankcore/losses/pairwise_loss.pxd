# The public name of the nogil pairwise-loss interface (declared in _pairwise.pxd), for kernels of other
# packages that evaluate a loss pair by pair through its vtable:
#
#     from rankcore.losses.pairwise_loss cimport PairwiseLoss
#
# ``Loss.pairwise_kernel()`` returns an instance (or None for a loss written in plain Python).

from rankcore.losses._pairwise cimport PairwiseLoss
