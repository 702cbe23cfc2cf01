import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import HotelDetails from './HotelDetails';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('displays the hotel name, rating and nightly price', async () => {
  fetchMock.get('/api/hotels/3', { id: 3, name: 'Harbor Inn', rating: 4.5, pricePerNight: 180 });

  await act(async () => { render(<HotelDetails />); });

  expect(fetchMock.called('/api/hotels/3')).toBe(true);
  expect(screen.getByRole('heading', { name: 'Harbor Inn' })).toBeInTheDocument();
  expect(screen.getByText('4.5 / 5')).toBeInTheDocument();
  expect(screen.getByText('$180 per night')).toBeInTheDocument();
}, 10000);

test('shows a not-found message when the hotel does not exist', async () => {
  fetchMock.get('/api/hotels/3', { status: 404, body: { error: 'Not found' } });

  await act(async () => { render(<HotelDetails />); });

  expect(fetchMock.called('/api/hotels/3')).toBe(true);
  expect(screen.getByText(/hotel not found/i)).toBeInTheDocument();
  expect(screen.queryByText(/per night/i)).not.toBeInTheDocument();
}, 10000);
