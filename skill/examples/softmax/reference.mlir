cuda_tile.module @kernels {
  entry @softmax_kernel(%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>) optimization_hints=<sm_100 = {occupancy = 4}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume bounded<0, ?>, %arg2 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_0, 1024], strides = [1024, 1] : tile<i32> -> tensor_view<?x1024xf32, strides=[1024,1]>
    %assume_1 = assume div_by<16>, %arg1 : tile<ptr<f32>>
    %tview_2 = make_tensor_view %assume_1, shape = [%assume_0, 1024], strides = [1024, 1] : tile<i32> -> tensor_view<?x1024xf32, strides=[1024,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_log2e = constant <f32: 1.44269502> : tile<1x1024xf32>
    %pview = make_partition_view %tview_2 : partition_view<tile=(1x1024), padding_value = neg_inf, tensor_view<?x1024xf32, strides=[1024,1]>>
    %pview_3 = make_partition_view %tview : partition_view<tile=(1x1024), tensor_view<?x1024xf32, strides=[1024,1]>>
    for %loopIdx in (%blockId_x to %assume_0, step %gridSize_x) : tile<i32> {
      %tile, %result_token = load_view_tko weak %pview[%loopIdx, %cst_0_i32] token = %0 : partition_view<tile=(1x1024), padding_value = neg_inf, tensor_view<?x1024xf32, strides=[1024,1]>>, tile<i32> -> tile<1x1024xf32>, token
      %reduce = reduce %tile dim=1 identities=[0xFF800000 : f32] : tile<1x1024xf32> -> tile<1xf32>
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %5 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
        yield %5 : tile<f32>
      }
      %reshape = reshape %reduce : tile<1xf32> -> tile<1x1xf32>
      %bcast = broadcast %reshape : tile<1x1xf32> -> tile<1x1024xf32>
      %1 = subf %tile, %bcast : tile<1x1024xf32>
      %2 = mulf %1, %cst_log2e : tile<1x1024xf32>
      %3 = exp2 %2 flush_to_zero : tile<1x1024xf32>
      %reduce_4 = reduce %3 dim=1 identities=[0.000000e+00 : f32] : tile<1x1024xf32> -> tile<1xf32>
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %5 = addf %reduce_lhs, %reduce_rhs : tile<f32>
        yield %5 : tile<f32>
      }
      %reshape_5 = reshape %reduce_4 : tile<1xf32> -> tile<1x1xf32>
      %bcast_6 = broadcast %reshape_5 : tile<1x1xf32> -> tile<1x1024xf32>
      %4 = divf %3, %bcast_6 rounding<approx> flush_to_zero : tile<1x1024xf32>
      %6 = store_view_tko weak %4, %pview_3[%loopIdx, %cst_0_i32] token = %0 : tile<1x1024xf32>, partition_view<tile=(1x1024), tensor_view<?x1024xf32, strides=[1024,1]>>, tile<i32> -> token
    }
    return
  }
}
