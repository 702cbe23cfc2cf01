import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './buyTickets';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('buys two tickets and shows the total charged', async () => {
  fetchMock.post('/api/events/e5/tickets', { status: 200, body: { quantity: 2, total: 90 } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('ticket-quantity'), { target: { value: '2' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/buy tickets/i)); });

  expect(fetchMock.calls('/api/events/e5/tickets').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/events/e5/tickets').body)).toEqual({ quantity: 2 });
  expect(screen.getByText('Total charged: $90')).toBeInTheDocument();
}, 10000);

test('shows an error when the purchase fails', async () => {
  fetchMock.post('/api/events/e5/tickets', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('ticket-quantity'), { target: { value: '2' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/buy tickets/i)); });

  expect(fetchMock.calls('/api/events/e5/tickets').length).toBe(1);
  expect(screen.getByText(/ticket purchase failed/i)).toBeInTheDocument();
}, 10000);
