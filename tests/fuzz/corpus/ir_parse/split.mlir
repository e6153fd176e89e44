// Two modules in one file, as mlir's --split-input-file writes them.
cuda_tile.module @kernels {
  entry @first(%arg0: tile<f32>) {
    %0 = negf %arg0 : tile<f32>
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @second(%arg0: tile<i32>) {
    %0 = negi %arg0 : tile<i32>
    return
  }
}
