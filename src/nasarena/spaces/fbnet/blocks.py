"""The FBNet space's vocabulary: its 9 candidate blocks and 22 searchable layers.

FBNet (Wu et al. 2019) stacks 26 layers; the first and last ones are fixed and the 22 in
between each take one of 9 blocks (NB301 paper, Appendix D.1): MobileNetV2-style inverted
residuals ``k<kernel>_e<expansion>`` (1x1 conv, kxk depthwise conv, 1x1 conv), two of them
with grouped 1x1 convs (``_g2``), and ``skip``. The block order is the FBNet paper's
(Table 2), and a block's position is its index in every encoding.
"""

#: The candidate blocks in the FBNet order; a block's position is its block index.
BLOCKS: tuple[str, ...] = ("k3_e1", "k3_e1_g2", "k3_e3", "k3_e6", "k5_e1", "k5_e1_g2", "k5_e3", "k5_e6", "skip")
#: Layers whose block is searched.
NUM_LAYERS = 22
#: Every block in every layer: 9^22, about 9.85e20.
SIZE: int = len(BLOCKS) ** NUM_LAYERS
