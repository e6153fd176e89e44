cuda_tile.module @kernels {
  entry @with_locs(%arg0: tile<f32> loc("k.py":3:0)) {
    %0 = negf %arg0 : tile<f32> loc(#loc1)
    %1 = absf %0 : tile<f32> loc(callsite("a.py":1:2 at "b.py":3:4))
    return loc(#loc2)
  } loc(#loc)
} loc(#loc)
#loc = loc("k.py":1:0)
#loc1 = loc("k.py":4:8)
#loc2 = loc("k.py":5:4)
