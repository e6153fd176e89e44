// 13.4 ops this registry does not know are kept as opaque ops; fpowf is pow.
cuda_tile.module @kernels {
  entry @future(%arg0: tile<16xf32>, %arg1: tile<16xi32>) {
    %0 = fpowf %arg0, %arg0 : tile<16xf32>
    %1 = fpowi %arg0, %arg1 : tile<16xf32>, tile<16xi32> -> tile<16xf32>
    %2 = insert %1 into %arg0[%arg1] : tile<16xf32>
    gdc_launch_dependents_tko
    %3 = addf %1, %2  : tile<16xf32>
    return
  }
}
