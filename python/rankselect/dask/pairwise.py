"""The pairwise squared hinge of sharded data as the data source of the core's solvers.

``L(w) = sum over preference pairs of max(0, 1 - w.(x_i - x_j))^2`` is a sum of per-query
terms, so its value, gradient (Chen et al. 2017, eq. 24), generalized Hessian-vector
products and Hessian blocks (eq. 25), line derivatives and Lipschitz bound (Laporte et al.
2014, Proposition 1) are sums over query shards. :class:`PairwiseLoss` answers the requests
of RankSVM's truncated Newton (``_core.ranksvm_fit_with``) and of sparse RankSVM's proximal
Newton / FISTA (``_core.sparse_ranksvm_with``): each request runs the core's per-shard
kernel on every shard (on the workers) and adds the results in shard order. It moves data
and adds sums; the iterations, line searches and stopping rules are the core's.
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .shards import _ordered_sum, _own, _sh, _Shards

__all__ = ["PairwiseLoss"]


def _value_grad(shard, w):
    s = _sh(shard)
    return _core.squared_hinge_value_grad(s["X"], s["y"], s["offsets"], _own(w))


def _hessp(shard, w, v):
    s = _sh(shard)
    return _core.squared_hinge_hessp(s["X"], s["y"], s["offsets"], _own(w), _own(v)[:, None])[:, 0]


def _line(shard, w, d, t):
    s = _sh(shard)
    return _core.squared_hinge_line_derivatives(s["X"], s["y"], s["offsets"], _own(w), _own(d), float(t))


def _hessian_block(shard, w, ws):
    s = _sh(shard)
    return _core.squared_hinge_hessian_block(s["X"], s["y"], s["offsets"], _own(w), _own(ws))


def _lipschitz(shard):
    s = _sh(shard)
    return _core.squared_hinge_lipschitz_bound(s["X"], s["y"], s["offsets"])


class PairwiseLoss:
    """``L`` and its derivatives as sums over the shards of :class:`_Shards` (module docs)."""

    def __init__(self, shards: _Shards) -> None:
        self.shards = shards
        self._line: tuple = ()
        self._lipschitz = None

    def value(self, w):
        return self.value_grad(w)[0]

    def value_grad(self, w):
        parts = self.shards.map(_value_grad, w)
        return _ordered_sum([v for v, _ in parts]), _ordered_sum([g for _, g in parts])

    def hessp(self, w, v):
        return _ordered_sum(self.shards.map(_hessp, w, v))

    def line_derivatives(self, w, d, t, second):
        # Both derivatives in one round; the solver asks for the second at the same t next.
        key = (float(t), w.tobytes(), d.tobytes())
        if not (self._line and self._line[0] == key):
            parts = self.shards.map(_line, w, d, t)
            self._line = (key, (_ordered_sum([a for a, _ in parts]), _ordered_sum([b for _, b in parts])))
        return self._line[1]

    def hessian_block(self, w, ws):
        return _ordered_sum(self.shards.map(_hessian_block, w, np.asarray(ws, dtype=np.uintp)))

    def lipschitz_bound(self):
        if self._lipschitz is None:
            self._lipschitz = _ordered_sum(self.shards.map(_lipschitz))
        return self._lipschitz

    def n_pairs(self):
        return self.shards.facts().n_pairs
