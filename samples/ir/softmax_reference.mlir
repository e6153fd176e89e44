cuda_tile.module @kernels {
  entry @softmax_kernel(%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>) optimization_hints=<sm_89 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %assume_0 = assume bounded<0, ?>, %arg2 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_0, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
    %assume_1 = assume div_by<16>, %arg1 : tile<ptr<f32>>
    %tview_2 = make_tensor_view %assume_1, shape = [%assume_0, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
    %cst_16_i32 = constant <i32: 16> : tile<i32>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    for %loopIdx in (%blockId_x to %cst_16_i32, step %gridSize_x) : tile<i32> {
      %pview = make_partition_view %tview : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>
      %tile, %result_token = load_view_tko weak %pview[%loopIdx, %cst_0_i32] token = %0 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>, tile<i32> -> tile<1x16xf32>, token
      %reduce = reduce %tile dim=1 identities=[0xFF800000 : f32] : tile<1x16xf32> -> tile<1xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %5 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
        yield %5 : tile<f32>
      }
      %reshape = reshape %reduce : tile<1xf32> -> tile<1x1xf32>
      %bcast = broadcast %reshape : tile<1x1xf32> -> tile<1x16xf32>
      %1 = subf %tile, %bcast  : tile<1x16xf32>
      %2 = exp2 %1 flush_to_zero : tile<1x16xf32>
      %reduce_3 = reduce %2 dim=1 identities=[0.000000e+00 : f32] : tile<1x16xf32> -> tile<1xf32> 
      (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
        %5 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
        yield %5 : tile<f32>
      }
      %reshape_4 = reshape %reduce_3 : tile<1xf32> -> tile<1x1xf32>
      %bcast_5 = broadcast %reshape_4 : tile<1x1xf32> -> tile<1x16xf32>
      %3 = divf %2, %bcast_5 rounding<approx> flush_to_zero : tile<1x16xf32>
      %pview_6 = make_partition_view %tview_2 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>
      %4 = store_view_tko weak %3, %pview_6[%loopIdx, %cst_0_i32] token = %0 : tile<1x16xf32>, partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>, tile<i32> -> token
    }
    return
  }
}
