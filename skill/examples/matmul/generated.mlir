cuda_tile.module @matmul_module {
  entry @matmul_kernel_7c41e2(%0: tile<ptr<f16>>, %1: tile<ptr<f16>>, %2: tile<ptr<f16>>, %3: tile<i32>, %4: tile<i32>, %5: tile<i32>) optimization_hints=<sm_100 = {}> {
    %6 = make_token : token
    %7 = assume div_by<16>, %0 : tile<ptr<f16>>
    %8 = assume bounded<0, ?>, %3 : tile<i32>
    %9 = assume bounded<0, ?>, %4 : tile<i32>
    %10 = make_tensor_view %7, shape = [%8, %9], strides = [%9, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %11 = assume div_by<16>, %1 : tile<ptr<f16>>
    %12 = assume bounded<0, ?>, %5 : tile<i32>
    %13 = make_tensor_view %11, shape = [%9, %12], strides = [%12, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %14 = assume div_by<16>, %2 : tile<ptr<f16>>
    %15 = make_tensor_view %14, shape = [%8, %12], strides = [%12, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %16, %17, %18 = get_tile_block_id : tile<i32>
    %19 = constant <i32: 32> : tile<i32>
    %20 = addi %9, %19 : tile<i32>
    %21 = constant <i32: 1> : tile<i32>
    %22 = subi %20, %21 : tile<i32>
    %23 = divi %22, %19 signed : tile<i32>
    %24 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %25 = constant <i32: 0> : tile<i32>
    %26 = make_partition_view %10 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %27 = make_partition_view %13 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %28 = for %29 in (%25 to %23, step %21) : tile<i32> iter_values(%30 = %24) -> (tile<64x64xf32>) {
      %31, %32 = load_view_tko weak %26[%16, %29] token=%6 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x32xf16>, token
      %33, %34 = load_view_tko weak %27[%29, %17] token=%6 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x64xf16>, token
      %35 = mmaf %31, %33, %30 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      continue %35 : tile<64x64xf32>
    }
    %36 = ftof %28 : tile<64x64xf32> -> tile<64x64xf16>
    %37 = make_partition_view %15 : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>
    %38 = store_view_tko weak %36, %37[%16, %17] token=%6 : tile<64x64xf16>, partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
