"""The two baselines every zero-cost proxy is compared with: parameters and FLOPs.

Both are counted on the very network the other proxies score (no data, no gradient):
trainable parameters (:func:`nasarena.training.count_parameters`, the benchmarks' ``params``)
and multiply-adds of one image's forward pass (:func:`nasarena.training.count_flops`: convolutions
and linear layers, the convention of NB201's and DARTS's reported FLOPs). Abdelfattah et al.
(2021, Table 1) list both beside their proxies; a larger network ranks higher.
"""

from __future__ import annotations

from ..training.networks import count_flops, count_parameters
from .proxy import Probe, Proxy


def _parameters(probe: Probe) -> float:
    return float(count_parameters(probe.build()))


def _flops(probe: Probe) -> float:
    return float(count_flops(probe.build(), probe.image_size))


PARAMS = Proxy("params", "Abdelfattah et al. 2021 (baseline)",
               "trainable parameters of the network (auxiliary heads excluded)", 0, _parameters)
FLOPS = Proxy("flops", "Abdelfattah et al. 2021 (baseline)",
              "multiply-adds of one image's forward pass (conv and linear layers)", 0, _flops)
