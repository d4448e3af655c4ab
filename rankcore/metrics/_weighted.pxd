# Shared interface of the weighted tie-group metric kernels (the resampling form of a metric).
#
# A GroupMetric evaluates a bipartite metric from the *tie groups* of a
# presorted order, walked from the highest score down: group g carries the
# total weight p of its positives and n of its negatives.  With integer
# weights (a bootstrap replicate's row multiplicities) the value is exactly the
# metric of the rows repeated that many times, since repeated rows are tied
# with their originals.  The walk is driven from outside, one group at a time,
# so a driver can draw the weights lazily and stop as soon as the metric has
# seen all it needs (the top-of-the-list metrics look at the top only):
#
#     from rankcore.metrics._weighted cimport GroupMetric, GroupWalk
#     cdef GroupWalk w
#     w.total_pos = I; w.total_neg = K; w.tp = 0; w.fp = 0
#     metric.start(&w)
#     for g in groups (decreasing score):
#         done = metric.add(&w, p_g, n_g)     # sees tp, fp = the weight above g
#         w.tp += p_g; w.fp += n_g
#         if done: break
#     value = metric.finish(&w)               # NaN where the metric is undefined
#
# Guarantees of every built-in kernel (see _weighted.pyx): no allocation,
# O(1) work per group, a group with p = n = 0 changes nothing, and ``finish``
# returns NaN (never a made-up value) when a class has no weight.

cdef struct GroupWalk:
    double total_pos    # IN  total weight of the positives (I of the replicate)
    double total_neg    # IN  total weight of the negatives (K)
    double tp           # weight of the positives above the current group (the driver updates it)
    double fp           # weight of the negatives above the current group
    double acc          # the metric's own running values
    double acc2
    double acc3
    bint done


cdef class GroupMetric:
    cdef void start(self, GroupWalk* w) noexcept nogil
    cdef bint add(self, GroupWalk* w, double p, double n) noexcept nogil
    cdef double finish(self, GroupWalk* w) noexcept nogil
