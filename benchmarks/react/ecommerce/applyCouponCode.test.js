import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './applyCouponCode';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('applies a valid coupon and shows the discount', async () => {
  fetchMock.post('/api/coupons/validate', { status: 200, body: { discount: 15 } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/coupon code/i), { target: { value: 'SPRING15' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/apply/i)); });

  expect(fetchMock.calls('/api/coupons/validate').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/coupons/validate').body)).toMatchObject({ code: 'SPRING15' });
  expect(screen.getByText('15% off applied')).toBeInTheDocument();
}, 10000);

test('shows the server error for an unknown coupon', async () => {
  fetchMock.post('/api/coupons/validate', { status: 404, body: { error: 'Coupon SPRING15 has expired' } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/coupon code/i), { target: { value: 'SPRING15' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/apply/i)); });

  expect(fetchMock.calls('/api/coupons/validate').length).toBe(1);
  expect(screen.getByText('Coupon SPRING15 has expired')).toBeInTheDocument();
  expect(screen.queryByText(/off applied/i)).not.toBeInTheDocument();
}, 10000);
