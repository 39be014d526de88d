// @ts-check
// The top of the page: what a kWh costs now, the cheapest window from now (today or tomorrow),
// and a note on what the price leaves out: a supplier markup of 0 where the all-in price is
// shown, or that the household's charges are not known.
import { NEXT_MINUTES } from './data.js';
import { el } from './dom.js';
import { hourAt, labeller } from './time.js';
import { basisOf, valueOf } from './view.js';

/**
 * @param {{ now: HTMLElement, next: HTMLElement, note: HTMLElement }} targets
 * @param {import('./data.js').Day} today
 * @param {import('./data.js').NextWindow | null} next
 * @param {import('./cards.js').DayView} view
 */
export function renderHeadline(targets, today, next, view) {
  const { text, fmt } = view;
  const basis = basisOf(today, view.mode);
  const h = today.hours[hourAt(today.hours, view.now)];
  targets.now.replaceChildren(
    ...(h
      ? [el('a', { href: '#now-hour' }, text.nowLine(labeller(today.hours)(h), fmt.price(valueOf(h, basis))))]
      : []),
  );
  const hours = NEXT_MINUTES / 60;
  targets.next.dataset.basis = next?.basis ?? '';
  targets.next.textContent = next
    ? text.nextWindow(
        hours,
        next.date === today.date ? 'today' : 'tomorrow',
        next.from,
        next.to,
        fmt.price(next.average),
        next.basis,
        basis,
      )
    : text.nextUnknown(hours);
  const note =
    basis === 'total' && today.hours.some((x) => x.parts?.supplier_markup === 0)
      ? 'markupZero'
      : today.allIn === 'none'
        ? today.gridMissing
          ? 'chargesUnknown'
          : 'chargesMissing'
        : null;
  // hidden, the note keeps its lines (style.css), so that the page does not move when it comes
  targets.note.hidden = note === null;
  targets.note.dataset.note = note ?? '';
  targets.note.textContent = note ? text[note] : '';
}
