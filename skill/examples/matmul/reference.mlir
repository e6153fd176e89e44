cuda_tile.module @kernels {
  entry @matmul_kernel(%arg0: tile<ptr<f16>>, %arg1: tile<ptr<f16>>, %arg2: tile<ptr<f16>>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>) optimization_hints=<sm_100 = {}> {
    %0 = make_token : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume bounded<0, ?>, %arg3 : tile<i32>
    %assume_1 = assume bounded<0, ?>, %arg4 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%assume_0, %assume_1], strides = [%assume_1, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_2 = assume div_by<16>, %arg1 : tile<ptr<f16>>
    %assume_3 = assume bounded<0, ?>, %arg5 : tile<i32>
    %tview_4 = make_tensor_view %assume_2, shape = [%assume_1, %assume_3], strides = [%assume_3, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %assume_5 = assume div_by<16>, %arg2 : tile<ptr<f16>>
    %tview_6 = make_tensor_view %assume_5, shape = [%assume_0, %assume_3], strides = [%assume_3, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %cst_32_i32 = constant <i32: 32> : tile<i32>
    %1 = divi %assume_1, %cst_32_i32 signed rounding<positive_inf> : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %pview = make_partition_view %tview : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pview_7 = make_partition_view %tview_4 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %for = for %loopIdx in (%cst_0_i32 to %1, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<64x64xf32>) {
      %tile, %result_token = load_view_tko weak %pview[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x32xf16>, token
      %tile_8, %result_token_9 = load_view_tko weak %pview_7[%loopIdx, %blockId_y] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x64xf16>, token
      %3 = mmaf %tile, %tile_8, %iterArg0 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      continue %3 : tile<64x64xf32>
    }
    %2 = ftof %for : tile<64x64xf32> -> tile<64x64xf16>
    %pview_10 = make_partition_view %tview_6 : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>
    %4 = store_view_tko weak %2, %pview_10[%blockId_x, %blockId_y] token = %0 : tile<64x64xf16>, partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
