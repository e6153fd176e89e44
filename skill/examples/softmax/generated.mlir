cuda_tile.module @softmax_module {
  entry @softmax_kernel_3b9d1e(%0: tile<ptr<f32>>, %1: tile<ptr<f32>>, %2: tile<i32>) optimization_hints=<sm_100 = {occupancy = 4}> {
    %3 = make_token : token
    %4 = assume div_by<16>, %0 : tile<ptr<f32>>
    %5 = assume bounded<0, ?>, %2 : tile<i32>
    %6 = make_tensor_view %4, shape = [%5, 1024], strides = [1024, 1] : tile<i32> -> tensor_view<?x1024xf32, strides=[1024,1]>
    %7 = assume div_by<16>, %1 : tile<ptr<f32>>
    %8 = make_tensor_view %7, shape = [%5, 1024], strides = [1024, 1] : tile<i32> -> tensor_view<?x1024xf32, strides=[1024,1]>
    %9, %10, %11 = get_tile_block_id : tile<i32>
    %12, %13, %14 = get_num_tile_blocks : tile<i32>
    %15 = constant <i32: 0> : tile<i32>
    %16 = constant <f32: 1.44269502> : tile<1x1024xf32>
    %17 = make_partition_view %8 : partition_view<tile=(1x1024), padding_value = neg_inf, tensor_view<?x1024xf32, strides=[1024,1]>>
    %18 = make_partition_view %6 : partition_view<tile=(1x1024), tensor_view<?x1024xf32, strides=[1024,1]>>
    for %19 in (%9 to %5, step %12) : tile<i32> {
      %20, %21 = load_view_tko weak %17[%19, %15] token=%3 : partition_view<tile=(1x1024), padding_value = neg_inf, tensor_view<?x1024xf32, strides=[1024,1]>>, tile<i32> -> tile<1x1024xf32>, token
      %22 = reduce %20 dim=1 identities=[0xFF800000 : f32] : tile<1x1024xf32> -> tile<1xf32>
      (%23: tile<f32>, %24: tile<f32>) {
        %25 = maxf %23, %24 : tile<f32>
        yield %25 : tile<f32>
      }
      %26 = reshape %22 : tile<1xf32> -> tile<1x1xf32>
      %27 = broadcast %26 : tile<1x1xf32> -> tile<1x1024xf32>
      %28 = subf %20, %27 : tile<1x1024xf32>
      %29 = mulf %28, %16 : tile<1x1024xf32>
      %30 = exp2 %29 flush_to_zero : tile<1x1024xf32>
      %31 = reduce %30 dim=1 identities=[0.000000e+00 : f32] : tile<1x1024xf32> -> tile<1xf32>
      (%23: tile<f32>, %24: tile<f32>) {
        %25 = addf %23, %24 : tile<f32>
        yield %25 : tile<f32>
      }
      %32 = reshape %31 : tile<1xf32> -> tile<1x1xf32>
      %33 = broadcast %32 : tile<1x1xf32> -> tile<1x1024xf32>
      %34 = divf %30, %33 rounding<approx> flush_to_zero : tile<1x1024xf32>
      %35 = store_view_tko weak %34, %18[%19, %15] token=%3 : tile<1x1024xf32>, partition_view<tile=(1x1024), tensor_view<?x1024xf32, strides=[1024,1]>>, tile<i32> -> token
    }
    return
  }
}
