#include "gpio/gpio_regs_sunxi.h"

void bp_gpio_sunxi_pin_init(struct bp_gpio_sunxi_pin *p, volatile uint32_t *regs, unsigned port,
			    unsigned pin)
{
	volatile uint32_t *base = regs + port * (BP_SUNXI_PORT_STRIDE / 4);

	p->cfg = base + BP_SUNXI_CFG0 / 4 + pin / 8;
	p->dat = base + BP_SUNXI_DAT / 4;
	p->cfg_shift = (pin % 8) * 4;
	p->mask = 1u << pin;
}

unsigned bp_gpio_sunxi_function(const struct bp_gpio_sunxi_pin *p)
{
	return (*p->cfg >> p->cfg_shift) & 0xfu;
}

void bp_gpio_sunxi_set_function(const struct bp_gpio_sunxi_pin *p, unsigned fn)
{
	uint32_t v = *p->cfg;

	v &= ~(0xfu << p->cfg_shift);
	v |= (fn & 0xfu) << p->cfg_shift;
	*p->cfg = v;
}
