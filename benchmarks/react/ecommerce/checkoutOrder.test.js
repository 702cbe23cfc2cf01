import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './checkoutOrder';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('places an order and shows the confirmation number', async () => {
  fetchMock.post('/api/orders', { status: 201, body: { orderId: 'A1001' } });

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByText(/place order/i)); });

  expect(fetchMock.calls('/api/orders').length).toBe(1);
  expect(screen.getByText('Order A1001 confirmed')).toBeInTheDocument();
}, 10000);

test('shows a checkout error when the order is rejected', async () => {
  fetchMock.post('/api/orders', { status: 500, body: { error: 'Payment gateway timeout' } });

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByText(/place order/i)); });

  expect(fetchMock.calls('/api/orders').length).toBe(1);
  expect(screen.getByText(/checkout failed/i)).toBeInTheDocument();
  expect(screen.queryByText(/confirmed/i)).not.toBeInTheDocument();
}, 10000);
