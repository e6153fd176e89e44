// A small kernel of tileport's own: mk/cutile.sh compiles and lowers it once so
// that the cuTile crates are built before the tests run.
#[cutile::module]
pub mod warm_module {
    use cutile::core::*;

    #[cutile::entry()]
    pub unsafe fn scale_rows<E: ElementType, const BLOCK: i32>(
        out: &Tensor<E, { [-1, -1] }>,
        x: &Tensor<E, { [-1, -1] }>,
    ) {
        let row: i32 = get_tile_block_id().0;
        let x_part = x.partition(const_shape![1, BLOCK]);
        let t: Tile<E, { [1, BLOCK] }> = x_part.load([row, 0i32]);
        let f: Tile<f32, { [1, BLOCK] }> = convert_tile(t);
        let two: Tile<f32, { [1, BLOCK] }> = constant(2.0f32, const_shape![1, BLOCK]);
        let y: Tile<f32, { [1, BLOCK] }> = f * two;
        let y_e: Tile<E, { [1, BLOCK] }> = convert_tile(y);
        let mut out_part = unsafe { out.partition_full_mut(const_shape![1, BLOCK]) };
        let _tok: Token = unsafe {
            store_view_tko_mut(
                &mut out_part,
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
