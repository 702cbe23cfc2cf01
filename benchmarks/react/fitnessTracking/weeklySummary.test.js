import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './weeklySummary';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('shows the weekly step and calorie totals', async () => {
  fetchMock.get('/api/stats/weekly', { steps: 52340, calories: 3120, activeDays: 5 });

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/stats/weekly')).toBe(true);
  expect(screen.getByTestId('total-steps')).toHaveTextContent('52340');
  expect(screen.getByTestId('total-calories')).toHaveTextContent('3120');
  expect(screen.getByText(/5 active days/i)).toBeInTheDocument();
}, 10000);

test('shows an error when the weekly summary is unavailable', async () => {
  fetchMock.get('/api/stats/weekly', 500);

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/stats/weekly')).toBe(true);
  expect(screen.getByText(/could not load weekly summary/i)).toBeInTheDocument();
  expect(screen.queryByTestId('total-steps')).not.toBeInTheDocument();
}, 10000);
