// Views, loads and stores, pointers, atomics, tokens, globals, assumes, debug ops.
cuda_tile.module @kernels {
  global  @g0 alignment = 16 <f32: [1.000000e+00, 2.000000e+00]> : tile<2xf32>
  global private  constant @g1 <i32: 7> : tile<4xi32>
  global private  @g2 alignment = 128 <f16: 0.000000e+00> : tile<8xf16>
  entry @memory(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i64>, %arg3: tile<128xptr<f32>>, %arg4: tile<128xi1>, %arg5: tile<128xf32>, %arg6: tile<128xi32>) optimization_hints=<default = {num_cta_in_cga = 1}, sm_100 = {num_cta_in_cga = 2, num_worker_warps_per_cta = 8, occupancy = 2}> {
    %0 = make_token : token
    %1 = make_token : token
    %2 = join_tokens %0, %1 : token
    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
    %assume_0 = assume div_by<4, every 4 along 1>, %arg1 : tile<i32>
    %assume_1 = assume bounded<0, ?>, %arg1 : tile<i32>
    %assume_2 = assume bounded<?, 100>, %arg2 : tile<i64>
    %assume_3 = assume same_elements<[2, 4]>, %arg6 : tile<128xi32>
    %assume_assume = assume div_by<8>, %assume_1 : tile<i32>
    %tview = make_tensor_view %assume, shape = [%arg1, 64], strides = [64, 1] : tile<i32> -> tensor_view<?x64xf16, strides=[64,1]>
    %tview_4 = make_tensor_view %assume, shape = [128, 64], strides = [%arg1, 1] : tile<i32> -> tensor_view<128x64xf16, strides=[?,1]>
    %tview_5 = make_tensor_view %assume, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf16, strides=[64,1]>
    %tview_6 = make_tensor_view %assume, shape = [], strides = [] : tensor_view<f16>
    %assume_tview = assume div_by<16>, %tview : tensor_view<?x64xf16, strides=[64,1]>
    %pview = make_partition_view %tview : partition_view<tile=(16x64), tensor_view<?x64xf16, strides=[64,1]>>
    %pview_7 = make_partition_view %tview_4 : partition_view<tile=(64x16), padding_value = neg_inf, tensor_view<128x64xf16, strides=[?,1]>, dim_map=[1, 0]>
    %pview_8 = make_partition_view %tview_5 : partition_view<tile=(16x64), padding_value = zero, tensor_view<128x64xf16, strides=[64,1]>>
    %sview = make_strided_view %tview_5 : strided_view<tile=(16x64), traversal_strides=[2,1], padding_value = nan, tensor_view<128x64xf16, strides=[64,1]>, dim_map=[1, 0]>
    %gsview = make_gather_scatter_view %tview_5 : gather_scatter_view<tile=(8x16), padding_value = zero, tensor_view<128x64xf16, strides=[64,1]>, sparse_dim=0>
    %3:2 = get_tensor_shape %tview : tensor_view<?x64xf16, strides=[64,1]> -> tile<i32>
    %4:2 = get_index_space_shape %pview : partition_view<tile=(16x64), tensor_view<?x64xf16, strides=[64,1]>> -> tile<i32>
    %tile, %result_token = load_view_tko weak %pview[%3#0, %4#1] : partition_view<tile=(16x64), tensor_view<?x64xf16, strides=[64,1]>>, tile<i32> -> tile<16x64xf16>, token
    %tile_9, %result_token_10 = load_view_tko acquire device %pview_7[%arg1, %arg1] token = %2 optimization_hints = <sm_100 = {allow_tma = false, latency = 3}> : partition_view<tile=(64x16), padding_value = neg_inf, tensor_view<128x64xf16, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> tile<64x16xf16>, token
    %tile_11, %result_token_12 = load_view_tko relaxed %pview_8[%arg1, %arg2] optimization_hints = <default = {allow_tma = true}> : partition_view<tile=(16x64), padding_value = zero, tensor_view<128x64xf16, strides=[64,1]>>, tile<i32>, tile<i64> -> tile<16x64xf16>, token
    %5 = store_view_tko weak %tile, %pview[%arg1, %arg1] token = %result_token : tile<16x64xf16>, partition_view<tile=(16x64), tensor_view<?x64xf16, strides=[64,1]>>, tile<i32> -> token
    %6 = store_view_tko release sys %tile_11, %pview_8[%arg1, %arg1] optimization_hints = <sm_90 = {latency = 2}> : tile<16x64xf16>, partition_view<tile=(16x64), padding_value = zero, tensor_view<128x64xf16, strides=[64,1]>>, tile<i32> -> token
    %7 = atomic_red_view_tko relaxed device %pview[%arg1, %arg1], addf, %tile token = %6 : tile<16x64xf16>, partition_view<tile=(16x64), tensor_view<?x64xf16, strides=[64,1]>>, tile<i32> -> token
    %8 = offset %arg3, %arg6 : tile<128xptr<f32>>, tile<128xi32> -> tile<128xptr<f32>>
    %result, %result_token_13 = load_ptr_tko weak %8 : tile<128xptr<f32>> -> tile<128xf32>, token
    %result_14, %result_token_15 = load_ptr_tko relaxed device %8, %arg4, %arg5 token=%0 optimization_hints = <sm_100 = {latency = 4}> : tile<128xptr<f32>>, tile<128xi1>, tile<128xf32> -> tile<128xf32>, token
    %result_16, %result_token_17 = load_ptr_tko acquire %8, %arg4 : tile<128xptr<f32>>, tile<128xi1> -> tile<128xf32>, token
    %9 = store_ptr_tko weak %8, %result : tile<128xptr<f32>>, tile<128xf32> -> token
    %10 = store_ptr_tko release tl_blk %8, %result, %arg4 token=%9 : tile<128xptr<f32>>, tile<128xf32>, tile<128xi1> -> token
    %result_18, %result_token_19 = atomic_rmw_tko relaxed device %8, add, %result : tile<128xptr<f32>>, tile<128xf32> -> tile<128xf32>, token
    %result_20, %result_token_21 = atomic_rmw_tko acq_rel sys %8, xchg, %result, %arg4 token=%10 : tile<128xptr<f32>>, tile<128xf32>, tile<128xi1> -> tile<128xf32>, token
    %result_22, %result_token_23 = atomic_cas_tko acquire device %8, %result, %result_14 : tile<128xptr<f32>>, tile<128xf32> -> tile<128xf32>, token
    %result_24, %result_token_25 = atomic_cas_tko relaxed device %8, %result, %result_14, %arg4 token=%0 : tile<128xptr<f32>>, tile<128xf32>, tile<128xi1> -> tile<128xf32>, token
    %11 = get_global @g0 : tile<ptr<f32>>
    %12 = alloca num_elem = 64, alignment = 16 : tile<ptr<f32>>
    %13 = alloca num_elem = 32, alignment = 8 global : tile<ptr<i32>>
    %14 = print_tko "x=%f\0A\22q\22\\", %result token=%0 : tile<128xf32> -> token
    %15 = print_tko "hello" -> token
    %16 = cmpi equal %arg1, %arg1, signed : tile<i32> -> tile<i1>
    assert %16, "must hold" : tile<i1>
    return
  }
}
