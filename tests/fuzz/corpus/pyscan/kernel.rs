// softmax: one row per tile block, TILE_N columns (reference: ct.Constant TILE_N).
#[cutile::module]
pub mod softmax_module {
    use cutile::core::*;

    #[cutile::entry(optimization_hints = (sm_100 = (occupancy = 2,),))]
    pub unsafe fn softmax_kernel<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let row: i32 = get_tile_block_id().0;
        let part = x.partition(const_shape![1, TILE_N]);
        let tile: Tile<E, { [1, TILE_N] }> =
            load_view_tko(&part, [row, 0], ordering::Weak, scope::TileBlock, Some(3), tma::Enabled);
        let xf: Tile<f32, { [1, TILE_N] }> = convert_tile(tile);
        let m: Tile<f32, { [1] }> = reduce_max(xf, 1);
        let m2: Tile<f32, { [1, 1] }> = m.reshape(const_shape![1, 1]);
        let mb: Tile<f32, { [1, TILE_N] }> = m2.broadcast(const_shape![1, TILE_N]);
        let d: Tile<f32, { [1, TILE_N] }> = subf(xf, mb, rounding::NearestEven, ftz::Enabled);
        let e: Tile<f32, { [1, TILE_N] }> = exp2(d, ftz::Enabled);
        let s: Tile<f32, { [1] }> = reduce_sum(e, 1);
        let s2: Tile<f32, { [1, 1] }> = s.reshape(const_shape![1, 1]);
        let sb: Tile<f32, { [1, TILE_N] }> = s2.broadcast(const_shape![1, TILE_N]);
        let y: Tile<f32, { [1, TILE_N] }> = true_div(e, sb);
        let yo: Tile<E, { [1, TILE_N] }> = convert_tile(y);
        let mut dst = unsafe { out.partition_full_mut(const_shape![1, TILE_N]) };
        let _tok = unsafe {
            store_view_tko_mut(&mut dst, yo, [row, 0], ordering::Weak, scope::TileBlock, None, tma::Enabled)
        };
    }
}
