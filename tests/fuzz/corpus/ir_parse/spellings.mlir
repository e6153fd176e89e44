// Spellings other printers use that the official printer does not: the
// Tile IR specification's partition_view (`masked`, `view=`), print_tko
// with its token written after `->` and unnamed results, `%%` in formats.
cuda_tile.module @spellings {
  entry @masked_views(%base: !cuda_tile.tile<!cuda_tile.ptr<f32>>, %row: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %base, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf32, strides=[16,1]>
    %pv = make_partition_view %tv : !cuda_tile.partition_view<masked tile=(2x2), view=!cuda_tile.tensor_view<16x16xf32, strides=[16,1]>>
    %t, %t_tok = load_view_tko weak %pv[%row, %row] token = %tok : !cuda_tile.partition_view<masked tile=(2x2), view=!cuda_tile.tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> tile<2x2xf32>, token
    // masked and a value: the value says it all
    %pz = make_partition_view %tv : partition_view<masked tile=(4x4), padding_value = neg_inf, tensor_view<16x16xf32, strides=[16,1]>>
    %u, %u_tok = load_view_tko weak %pz[%row, %row] token = %t_tok : partition_view<tile=(4x4), padding_value = neg_inf, tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> tile<4x4xf32>, token
    %done = store_view_tko weak %t, %pv[%row, %row] token = %u_tok : tile<2x2xf32>, partition_view<masked tile=(2x2), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
  entry @masked_3d(%p: tile<ptr<f16>>, %d0: tile<i32>, %d1: tile<i32>, %d2: tile<i32>, %s0: tile<i32>, %s1: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%d0, %d1, %d2], strides = [%s0, %s1, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
    %pv = make_partition_view %tv : partition_view<masked tile=(32x1x64), tensor_view<?x?x?xf16, strides=[?,?,1]>, dim_map=[0, 1, 2]>
    %c0 = constant <i32: 0> : tile<i32>
    %x, %x_tok = load_view_tko weak %pv[%c0, %c0, %c0] : partition_view<masked tile=(32x1x64), tensor_view<?x?x?xf16, strides=[?,?,1]>, dim_map=[0, 1, 2]>, tile<i32> -> tile<32x1x64xf16>, token
    return
  }
  entry @prints(%x: tile<2x2xf4E2M1FN>) {
    %c1 = constant <i1: true> : tile<i1>
    %c5 = constant <bf16: 5.000000e+00> : tile<bf16>
    %c4_i32 = constant <i32: 4> : tile<i32>
    %tok3 = make_token : token
    print_tko "hello_world" -> !cuda_tile.token
    print_tko "hello_world, %i, %f", %c1, %c5 : tile<i1>, tile<bf16> -> !cuda_tile.token
    cuda_tile.print_tko "%f", %x : tile<2x2xf4E2M1FN> -> !cuda_tile.token
    %t4 = print_tko "next: %i", %c4_i32 token = %tok3 : tile<i32> -> !cuda_tile.token
    %t5 = print_tko "%i%% done, 100%%", %c4_i32 token=%t4 : tile<i32> -> token
    print_tko "%%%%" token = %t5 -> !cuda_tile.token
    return
  }
}
