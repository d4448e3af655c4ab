# Shared interface of the exact pairwise loss kernels (rankcore/losses/_pairwise.pyx).
#
# A PairwiseLoss evaluates one pairwise loss ℓ(z) and its derivatives without
# the GIL.  The blocked kernels of _pairwise.pyx call it for every
# (positive, negative) pair, O(I·K) time and O(I + K) memory.  A plugin loss
# written in Cython subclasses it and returns an instance from
# ``Loss.pairwise_kernel()``:
#
#     from rankcore.losses.pairwise_loss cimport PairwiseLoss     (the public name of this declaration)
#     cdef class MyKernel(PairwiseLoss):
#         cdef void evaluate(self, double z, int order, double* v, double* d1,
#                            double* d2) noexcept nogil:
#             ...   # fill v (always), d1 (order >= 1), d2 (order >= 2)

cdef class PairwiseLoss:
    # ℓ(z) into v[0]; ℓ'(z) into d1[0] when order >= 1; ℓ''(z) into d2[0]
    # when order >= 2 (NaN if the loss has no second derivative).
    cdef void evaluate(self, double z, int order, double* v, double* d1,
                       double* d2) noexcept nogil
