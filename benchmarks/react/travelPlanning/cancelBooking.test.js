import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './cancelBooking';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('cancels the booking', async () => {
  fetchMock.delete('/api/bookings/B77', 204);

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByTestId('cancel-booking')); });

  expect(fetchMock.called('/api/bookings/B77')).toBe(true);
  expect(screen.getByText(/booking cancelled/i)).toBeInTheDocument();
}, 10000);

test('shows why the booking could not be cancelled', async () => {
  fetchMock.delete('/api/bookings/B77', {
    status: 409,
    body: { error: 'Bookings cannot be cancelled within 24 hours of check-in' },
  });

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByTestId('cancel-booking')); });

  expect(fetchMock.called('/api/bookings/B77')).toBe(true);
  expect(screen.getByText('Bookings cannot be cancelled within 24 hours of check-in')).toBeInTheDocument();
  expect(screen.queryByText(/booking cancelled/i)).not.toBeInTheDocument();
}, 10000);
