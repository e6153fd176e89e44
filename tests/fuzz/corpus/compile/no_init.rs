// rustc accepts a let without an initializer; cuTile's own compiler does not
// ("let bindings must have an initializer expression").
#[cutile::module]
pub mod no_init_module {
    use cutile::core::*;

    #[cutile::entry()]
    pub unsafe fn scale<E: ElementType, const BLOCK: i32>(
        out: &Tensor<E, { [-1] }>,
        x: &Tensor<E, { [-1] }>,
    ) {
        let i: i32 = get_tile_block_id().0;
        let x_part = x.partition(const_shape![BLOCK]);
        let t: Tile<E, { [BLOCK] }> = x_part.load([i]);
        let y: Tile<E, { [BLOCK] }>;
        y = t;
        let mut out_part = unsafe { out.partition_full_mut(const_shape![BLOCK]) };
        let _tok: Token = unsafe {
            store_view_tko_mut(&mut out_part, y, [i], ordering::Weak, scope::TileBlock, None, tma::Enabled)
        };
    }
}
