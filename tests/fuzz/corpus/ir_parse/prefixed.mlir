// Hand-written style: cuda_tile. prefixes on ops, !cuda_tile. on types,
// #cuda_tile. on predicates, token=%t on view ops, explicit identity dim_map,
// odd spacing and comments.
cuda_tile.module @kernels {
  cuda_tile.entry @prefixed(%base: !cuda_tile.tile<!cuda_tile.ptr<f32>>, %n: !cuda_tile.tile<i32>)   optimization_hints = <sm_100 = {occupancy = 1}> {
    %t = cuda_tile.make_token : !cuda_tile.token
    %p = cuda_tile.assume #cuda_tile.div_by<16>, %base : !cuda_tile.tile<!cuda_tile.ptr<f32>>
    %tv = cuda_tile.make_tensor_view %p, shape = [%n, 32], strides = [32, 1] : !cuda_tile.tile<i32> -> !cuda_tile.tensor_view<?x32xf32, strides=[32, 1]>
    %pv = cuda_tile.make_partition_view %tv : !cuda_tile.partition_view<tile=(16x32), !cuda_tile.tensor_view<?x32xf32, strides=[32, 1]>, dim_map=[0, 1]>
    %bx, %by, %bz = cuda_tile.get_tile_block_id : !cuda_tile.tile<i32>
    %zero = cuda_tile.constant <i32: 0> : !cuda_tile.tile<i32>
    // a load with the unspaced token form
    %v, %tok = cuda_tile.load_view_tko weak %pv[%bx, %zero] token=%t : !cuda_tile.partition_view<tile=(16x32), !cuda_tile.tensor_view<?x32xf32, strides=[32, 1]>, dim_map=[0, 1]>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32> -> !cuda_tile.tile<16x32xf32>, !cuda_tile.token
    %s = cuda_tile.addf   %v,%v   : !cuda_tile.tile<16x32xf32>
    %m = cuda_tile.maxf %s, %v propagate_nan flush_to_zero : !cuda_tile.tile<16x32xf32>
    %out = cuda_tile.store_view_tko weak %m, %pv[%bx, %zero] token = %tok : !cuda_tile.tile<16x32xf32>, !cuda_tile.partition_view<tile=(16x32), !cuda_tile.tensor_view<?x32xf32, strides=[32, 1]>>, !cuda_tile.tile<i32> -> !cuda_tile.token
    cuda_tile.return
  }
}
