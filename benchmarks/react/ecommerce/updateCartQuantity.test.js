import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './updateCartQuantity';

const cart = [
  { id: 1, name: 'Desk Lamp', quantity: 1 },
  { id: 2, name: 'Notebook', quantity: 4 },
];

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('updates the quantity of a cart item', async () => {
  fetchMock.get('/api/cart', cart);
  fetchMock.put('/api/cart/1', { status: 200, body: { id: 1, name: 'Desk Lamp', quantity: 3 } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('quantity-1'), { target: { value: '3' } });
  });
  await act(async () => { fireEvent.click(screen.getByTestId('update-1')); });

  expect(fetchMock.called('/api/cart/1')).toBe(true);
  expect(JSON.parse(fetchMock.lastOptions('/api/cart/1').body)).toEqual({ quantity: 3 });
  expect(screen.getByText(/cart updated/i)).toBeInTheDocument();
}, 10000);

test('shows an error when the cart cannot be updated', async () => {
  fetchMock.get('/api/cart', cart);
  fetchMock.put('/api/cart/1', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('quantity-1'), { target: { value: '3' } });
  });
  await act(async () => { fireEvent.click(screen.getByTestId('update-1')); });

  expect(fetchMock.called('/api/cart/1')).toBe(true);
  expect(screen.getByText(/could not update cart/i)).toBeInTheDocument();
}, 10000);
