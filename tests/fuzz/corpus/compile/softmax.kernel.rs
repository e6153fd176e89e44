// cuTile Rust translation of `softmax_kernel` (src/tilegym/ops/cutile/softmax.py), written by tileport mech.
// Translate the source again rather than editing this file by hand.
#[cutile::module]
pub mod softmax_module {
    use cutile::core::*;

    #[cutile::entry(optimization_hints = (sm_80 = (occupancy = 4,), sm_86 = (occupancy = 4,), sm_87 = (occupancy = 4,), sm_89 = (occupancy = 4,), sm_90 = (occupancy = 4,), sm_100 = (occupancy = 4,), sm_103 = (occupancy = 4,), sm_110 = (occupancy = 4,), sm_120 = (occupancy = 4,), sm_121 = (occupancy = 4,),))]
    pub unsafe fn softmax_kernel<E: ElementType, const TILE_SIZE: i32>(
        output: &Tensor<E, { [-1, -1] }>,
        input: &Tensor<E, { [-1, -1] }>,
        n_rows: i32,
    ) {
        let pid: i32 = get_tile_block_id().0;
        let num_programs: i32 = get_num_tile_blocks().0;
        for row in (pid..n_rows).step_by(num_programs as usize) {
            let x_part = make_partition_view(
                input,
                const_shape![1, TILE_SIZE],
                padding::NegInf,
                dim_map::Identity,
                get_tensor_token(input),
            );
            let x: Tile<E, { [1, TILE_SIZE] }> = load_view_tko(
                &x_part,
                [row, 0i32],
                ordering::Weak,
                scope::TileBlock,
                None,
                tma::Enabled,
            );
            let x: Tile<f32, { [1, TILE_SIZE] }> = convert_tile(x);
            let row_max_red: Tile<f32, { [1] }> = reduce_max(x, 1i32);
            let row_max: Tile<f32, { [1, 1] }> = row_max_red.reshape(const_shape![1, 1]);
            let num_b: Tile<f32, { [1, TILE_SIZE] }> =
                row_max.broadcast(const_shape![1, TILE_SIZE]);
            let num_r: Tile<f32, { [1, TILE_SIZE] }> = x - num_b;
            let num_c: Tile<f32, { [1, TILE_SIZE] }> =
                constant(1.442695f32, const_shape![1, TILE_SIZE]);
            let num_r_1: Tile<f32, { [1, TILE_SIZE] }> =
                mulf(num_r, num_c, rounding::NearestEven, ftz::Disabled);
            // exp(x) = exp2(x * log2(e)), as cuTile lowers it
            let num: Tile<f32, { [1, TILE_SIZE] }> = exp2(num_r_1, ftz::Disabled);
            let den_red: Tile<f32, { [1] }> = reduce_sum(num, 1i32);
            let den: Tile<f32, { [1, 1] }> = den_red.reshape(const_shape![1, 1]);
            let y_b: Tile<f32, { [1, TILE_SIZE] }> = den.broadcast(const_shape![1, TILE_SIZE]);
            let y: Tile<f32, { [1, TILE_SIZE] }> = true_div(num, y_b);
            let y_e: Tile<E, { [1, TILE_SIZE] }> = convert_tile(y);
            // R43: outputs are read-only &Tensor params written through partition_full_mut
            let mut output_part = unsafe { output.partition_full_mut(const_shape![1, TILE_SIZE]) };
            let _output_tok: Token = unsafe {
                store_view_tko_mut(
                    &mut output_part,
                    y_e,
                    [row, 0i32],
                    ordering::Weak,
                    scope::TileBlock,
                    None,
                    tma::Enabled,
                )
            };
        }
    }
}
