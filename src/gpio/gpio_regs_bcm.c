#include "gpio/gpio_regs_bcm.h"

void bp_gpio_bcm_pin_init(struct bp_gpio_bcm_pin *p, volatile uint32_t *regs, unsigned pin)
{
	unsigned bank = pin / 32;

	p->fsel = regs + BP_BCM_GPFSEL0 / 4 + pin / 10;
	p->set = regs + BP_BCM_GPSET0 / 4 + bank;
	p->clr = regs + BP_BCM_GPCLR0 / 4 + bank;
	p->lev = regs + BP_BCM_GPLEV0 / 4 + bank;
	p->fsel_shift = (pin % 10) * 3;
	p->mask = 1u << (pin % 32);
}

unsigned bp_gpio_bcm_function(const struct bp_gpio_bcm_pin *p)
{
	return (*p->fsel >> p->fsel_shift) & 7u;
}

void bp_gpio_bcm_set_function(const struct bp_gpio_bcm_pin *p, unsigned fn)
{
	uint32_t v = *p->fsel;

	v &= ~(7u << p->fsel_shift);
	v |= (fn & 7u) << p->fsel_shift;
	*p->fsel = v;
}
