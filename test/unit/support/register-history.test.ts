import { RegisterHistory } from '../../support/register-history';

const write = (value: boolean, sentAt: number, respondedAt: number, acknowledged = true) => ({
  value,
  sentAt,
  respondedAt,
  acknowledged,
});
const read = (value: boolean, sentAt: number, respondedAt: number) => ({
  value,
  sentAt,
  respondedAt,
});

describe('checking reads against a history of writes', () => {
  const history = new RegisterHistory(true);
  history.wrote(write(false, 10, 20));
  history.wrote(write(true, 30, 40, false));
  history.wrote(write(false, 50, 60));

  it('accepts the value in force, and either value while a write overlaps the read', () => {
    expect(history.violations([read(true, 0, 5), read(false, 21, 25)])).toEqual([]);
    expect(history.violations([read(true, 5, 15), read(false, 5, 15)])).toEqual([]);
    // Answered after the write was acknowledged, but sent before: the old value is legal.
    expect(history.violations([read(true, 15, 22)])).toEqual([]);
  });

  it('refuses the old value once the write was acknowledged before the read was sent', () => {
    expect(history.violations([read(true, 21, 25)])).toEqual([read(true, 21, 25)]);
  });

  it('refuses a value written only after the read was answered', () => {
    expect(history.violations([read(false, 0, 9)])).toEqual([read(false, 0, 9)]);
  });

  it('counts an unacknowledged write as one that may have taken effect', () => {
    expect(history.violations([read(true, 45, 48), read(false, 45, 48)])).toEqual([]);
    expect(history.violations([read(true, 61, 70)])).toEqual([read(true, 61, 70)]);
  });
});
