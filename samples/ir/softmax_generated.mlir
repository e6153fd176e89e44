cuda_tile.module @softmax_module {
  entry @softmax_kernel_5f2a9c(%0: tile<ptr<f32>>, %1: tile<ptr<f32>>, %2: tile<i32>) optimization_hints=<sm_100 = {}> {
    %3 = make_token : token
    %4 = assume div_by<16>, %0 : tile<ptr<f32>>
    %5 = assume bounded<0, ?>, %2 : tile<i32>
    %6 = make_tensor_view %4, shape = [%5, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
    %7 = assume div_by<16>, %1 : tile<ptr<f32>>
    %8 = make_tensor_view %7, shape = [%5, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
    %9 = constant <i32: 16> : tile<i32>
    %10, %11, %12 = get_tile_block_id : tile<i32>
    %13, %14, %15 = get_num_tile_blocks : tile<i32>
    %16 = constant <i32: 0> : tile<i32>
    for %17 in (%10 to %9, step %13) : tile<i32> {
      %18 = make_partition_view %6 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>
      %19, %20 = load_view_tko weak %18[%17, %16] token=%3 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>, tile<i32> -> tile<1x16xf32>, token
      %21 = reduce %19 dim=1 identities=[0xFF800000 : f32] : tile<1x16xf32> -> tile<1xf32> 
      (%22: tile<f32>, %23: tile<f32>) {
        %24 = maxf %22, %23 : tile<f32>
        yield %24 : tile<f32>
      }
      %25 = reshape %21 : tile<1xf32> -> tile<1x1xf32>
      %26 = broadcast %25 : tile<1x1xf32> -> tile<1x16xf32>
      %27 = subf %19, %26  : tile<1x16xf32>
      %28 = exp2 %27 : tile<1x16xf32>
      %29 = reduce %28 dim=1 identities=[0.000000e+00 : f32] : tile<1x16xf32> -> tile<1xf32> 
      (%22: tile<f32>, %23: tile<f32>) {
        %24 = addf %22, %23  : tile<f32>
        yield %24 : tile<f32>
      }
      %30 = reshape %29 : tile<1xf32> -> tile<1x1xf32>
      %31 = broadcast %30 : tile<1x1xf32> -> tile<1x16xf32>
      %32 = divf %28, %31 rounding<approx> flush_to_zero : tile<1x16xf32>
      %33 = make_partition_view %8 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>
      %34 = store_view_tko weak %32, %33[%17, %16] token=%3 : tile<1x16xf32>, partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>, tile<i32> -> token
    }
    return
  }
}
