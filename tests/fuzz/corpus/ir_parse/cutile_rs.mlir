cuda_tile.module @softmax_module {
  entry @softmax_kernel_a1b2c3(%0: tile<ptr<f32>>, %1: tile<i32>, %2: tile<ptr<f32>>) optimization_hints=<sm_100 = {num_cta_in_cga = 1}> {
    %3 = make_token : token
    %4 = assume div_by<16>, %0 : tile<ptr<f32>>
    %5 = make_tensor_view %4, shape = [%1, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
    %6 = make_partition_view %5 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>, dim_map=[0, 1]>
    %7, %8, %9 = get_tile_block_id : tile<i32>
    %10 = constant <i32: 0> : tile<i32>
    %11, %12 = load_view_tko weak %6[%7, %10] token=%3 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>, dim_map=[0, 1]>, tile<i32> -> tile<1x16xf32>, token
    %13 = reduce %11 dim=1 identities=[0xFF800000 : f32] : tile<1x16xf32> -> tile<1xf32>
    (%14: tile<f32>, %15: tile<f32>) {
      %16 = maxf %14, %15 : tile<f32>
      yield %16 : tile<f32>
    }
    %17 = reshape %13 : tile<1xf32> -> tile<1x1xf32>
    %18 = broadcast %17 : tile<1x1xf32> -> tile<1x16xf32>
    %19 = subf %11, %18 : tile<1x16xf32>
    %20 = assume div_by<16>, %2 : tile<ptr<f32>>
    %21 = make_tensor_view %20, shape = [%1, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
    %22 = make_partition_view %21 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>, dim_map=[0, 1]>
    %23 = store_view_tko weak %19, %22[%7, %10] token=%12 : tile<1x16xf32>, partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>, dim_map=[0, 1]>, tile<i32> -> token
    return
  }
}
