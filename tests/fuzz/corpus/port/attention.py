import math

import cuda.tile as ct
import torch

from ...backend import register_impl

INV_LOG_2 = 1.0 / math.log(2)
ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel(occupancy=2)
def attention_kernel(Q, K, V, Out, qk_scale: float, TILE_D: ConstInt, H: ConstInt,
                     TILE_M: ConstInt, TILE_N: ConstInt, CAUSAL: ConstBool):
    bid_x = ct.bid(0)
    bid_y = ct.bid(1)
    batch = bid_y // H
    head = bid_y % H
    qk_scale = qk_scale * INV_LOG_2
    offs_m = bid_x * TILE_M + ct.arange(TILE_M, dtype=ct.int32)
    offs_m = offs_m[:, None]
    offs_n_tile = ct.arange(TILE_N, dtype=ct.int32)
    offs_n_tile = offs_n_tile[None, :]
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, TILE_D), 0.0, dtype=ct.float32)
    q = ct.load(Q, index=(batch, head, bid_x, 0), shape=(1, 1, TILE_M, TILE_D)).reshape((TILE_M, TILE_D))
    k_seqlen = K.shape[2]
    if CAUSAL:
        m_end = (bid_x + 1) * TILE_M
        Tc = ct.cdiv(min(m_end, k_seqlen), TILE_N)
    else:
        Tc = ct.cdiv(k_seqlen, TILE_N)
    for j in range(0, Tc):
        k = ct.load(K, index=(batch, head, 0, j), shape=(1, 1, TILE_D, TILE_N),
                    order=(0, 1, 3, 2)).reshape((TILE_D, TILE_N))
        qk = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
        qk = ct.mma(q, k, qk)
        if CAUSAL:
            offs_n = j * TILE_N + offs_n_tile
            mask = offs_m >= offs_n
            qk = qk + ct.where(mask, 0.0, -math.inf)
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True) * qk_scale)
        qk = qk * qk_scale - m_ij
        p = ct.exp2(qk, flush_to_zero=True)
        l_ij = ct.sum(p, axis=-1, keepdims=True)
        alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha
        v = ct.load(V, index=(batch, head, j, 0), shape=(1, 1, TILE_N, TILE_D)).reshape((TILE_N, TILE_D))
        p = p.astype(Q.dtype)
        acc = ct.mma(p, v, acc)
        m_i = m_ij
    acc = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
    acc = acc.reshape((1, 1, TILE_M, TILE_D)).astype(Out.dtype)
    ct.store(Out, index=(batch, head, bid_x, 0), tile=acc)


@register_impl("attention", backend="cutile")
def attention(q, k, v, scaling=None, is_causal=True):
    b, h, s, d = q.shape
    if scaling is None:
        scaling = 1.0 / math.sqrt(d)
    out = torch.empty_like(q)
    tile_m, tile_n = 128, 64
    grid = (ct.cdiv(s, tile_m), b * h, 1)
    ct.launch(torch.cuda.current_stream(), grid, attention_kernel,
              (q, k, v, out, scaling, d, h, tile_m, tile_n, is_causal))
    return out
