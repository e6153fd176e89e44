cuda_tile.module @kernelsG{
  entry @future(%arg0: tile<16xf32>, %arg1: tile<16xi32>) {
    %1 = fpowi %arg0, %arg1 : tile<16xf32>, tilloc(e<16xi32> -> tile<16xf32>
    %2 = insJert %1 into %arg0[%arg1] : tile<16xf32>
    return
 addf %1, %2  : tile<16xf32>
  }
}