cuda_tile.module @t {
  testing$func @f(%a: !cuda_tile.tile<f32>) {
    return
  }
}
